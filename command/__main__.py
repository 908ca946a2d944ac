from president.cli import main

raise SystemExit(main())
