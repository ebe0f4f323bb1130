const { execSync } = require('child_process');
execSync('git push --force origin main');
