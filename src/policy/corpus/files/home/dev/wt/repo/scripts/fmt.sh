npx prettier --check .
