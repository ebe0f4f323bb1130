const { rmSync: r } = require('fs');
r('dist', { recursive: true, force: true });
console.log('built');
