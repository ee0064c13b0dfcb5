from .cli.command import main

raise SystemExit(main())
