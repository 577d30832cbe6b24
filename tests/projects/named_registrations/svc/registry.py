class Registry:
    def __init__(self):
        self.entries = {}

    def register(self, value, name):
        self.entries[name] = value

    def lookup(self, name):
        return self.entries[name]


registry = Registry()
