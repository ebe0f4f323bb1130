const fs = require('fs');
fs.rmSync('/opt/x', { recursive: true, force: true });
