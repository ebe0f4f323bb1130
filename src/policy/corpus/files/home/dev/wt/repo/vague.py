import shutil, sys
shutil.rmtree(sys.argv[1])
