from idemlint.cli import run

run()
