"""A fake Slack Web API as strict as Slack, signed requests, and simulated Slack users."""
