import shutil
shutil.rmtree("/opt/x")
