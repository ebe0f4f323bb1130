const { rmSync } = require('fs');
rmSync('/opt/x', { recursive: true, force: true });
