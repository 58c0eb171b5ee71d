from hive_cli.main import main

main()
