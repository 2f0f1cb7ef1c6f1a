from kdm.cli import main

raise SystemExit(main())
