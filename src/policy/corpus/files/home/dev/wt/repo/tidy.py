from shutil import rmtree as r
r('build')
print('clean')
