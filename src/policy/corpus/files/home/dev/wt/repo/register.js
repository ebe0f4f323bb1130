const { register } = require('node:module');
console.log('loader ready');
