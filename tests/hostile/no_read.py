"""Says hello, then never reads stdin."""
import time

print('{"hello": true}', flush=True)
while True:
    time.sleep(60)
