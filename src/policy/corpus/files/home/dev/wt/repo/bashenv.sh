export PATH="$PWD/bin:$PATH"
set -o pipefail
