from shutil import rmtree as r
r('/opt/x')
