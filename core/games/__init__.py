"""The built-in games; importing this package registers them."""

from core.games import biggiebills as biggiebills
from core.games import bigidea as bigidea
from core.games import businessgo as businessgo
