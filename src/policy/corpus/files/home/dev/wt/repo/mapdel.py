import shutil
list(map(shutil.rmtree, open('dirs.txt').read().split()))
