"""What the tests and the benches run against: fake Discord and Slack servers on 127.0.0.1
and simulated players. Never imported by the bot itself (bot/, core/, storage/)."""
