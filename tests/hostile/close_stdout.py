"""Closes its stdout, then keeps running."""
import os
import time

os.close(1)
while True:
    time.sleep(60)
