"""The project's own container: what it holds is filled at start-up."""


class Container:
    def __init__(self):
        self._made = {}

    def provide(self, kind, made):
        self._made[kind] = made

    def get(self, kind):
        return self._made[kind]


container = Container()
