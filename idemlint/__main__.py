from idemlint.cli import main

raise SystemExit(main())
