python3 -c "import shutil; shutil.rmtree('/srv')"
