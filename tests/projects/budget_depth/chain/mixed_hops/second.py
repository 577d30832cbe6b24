from chain.mixed_hops import third


def relay(address):
    def forward(to):
        # Nor is a function nested in the caller.
        third.relay(to)

    forward(address)
