import sys

from radixnet.cli import main

sys.exit(main())
