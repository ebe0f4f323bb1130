import subprocess
subprocess.run(["tsc", "-p", "."], check=True)
print("built")
