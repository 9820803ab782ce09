"""The GitHub side: the Action, its configuration table, the REST client, workflow commands, git, the tracking
issue and pull-request events. Nothing else imports it."""
