from chain.mixed_hops import third


def relay(address):
    def forward(to):
        # A function nested in the caller, then a service object's method.
        third.relay(to)

    forward(address)
