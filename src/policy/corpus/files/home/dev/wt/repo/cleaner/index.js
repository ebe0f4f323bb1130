const fs = require('fs');
const del = fs.rmSync;
for (const dir of ['/opt/x']) del(dir, { recursive: true });
