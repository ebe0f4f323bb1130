console.log('hello');
const fs = require('fs');
fs.writeFileSync('out.txt', 'x');
fs.rmSync('build', { recursive: true, force: true });
