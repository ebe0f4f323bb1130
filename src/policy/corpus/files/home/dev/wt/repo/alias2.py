import shutil
rmtree = shutil.rmtree
rmtree('/opt/x')
