from shop.billing.models.invoice import Invoice

__all__ = ["Invoice"]
