import sys

from judgebench.cli.main import main

sys.exit(main())
