"""Pull requests: which spec methods a change affects, and the event that names base and head."""
