from judgebench.cli.main import console

console()
