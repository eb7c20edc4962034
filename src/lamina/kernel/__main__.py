"""`python -m lamina.kernel -f CONNECTION_FILE`: what the kernelspec's argv starts."""
from .app import main

main()
