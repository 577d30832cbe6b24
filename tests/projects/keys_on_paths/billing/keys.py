from typing import Optional


def sync_key(order, sync: bool) -> Optional[str]:
    if sync:
        return f"order:{order.id}"
    return None


def order_key(order) -> str:
    return f"order:{order.id}"
