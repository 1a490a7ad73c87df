"""The project's documentation, installed as package data (``chaodipi.docs``) so that the
dashboard can show the rule texts (``rules.md``, ``rules.zh.md``) from an installed wheel,
read with ``importlib.resources``. No code lives here."""
