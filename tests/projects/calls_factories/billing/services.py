"""Wrappers that import the module they delegate to inside a function."""


def _payouts():
    from billing import payouts  # imported here to break an import cycle

    return payouts


def _either(flag):
    from billing import clients, payouts

    if flag:
        return clients
    return payouts


def pay_out(account, amount):
    return _payouts().send_payout(account, amount)


def pay_out_somewhere(flag, account, amount):
    return _either(flag).send_payout(account, amount)
