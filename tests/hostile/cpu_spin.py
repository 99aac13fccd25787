"""Burns CPU forever."""
print('{"spinning": true}', flush=True)
while True:
    pass
