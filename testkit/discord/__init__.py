"""A fake Discord (gateway + REST) as strict as Discord, and simulated Discord users."""
