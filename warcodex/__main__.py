"""`python -m warcodex` runs the same CLI as the `warcodex` console script."""

from warcodex.cli import main

if __name__ == "__main__":
    main()
