"""The benchmarks behind `boardroom bench`: drivers and simulated load, apart from the bot."""
