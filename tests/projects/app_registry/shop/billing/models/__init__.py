from shop.billing.models.invoice import Invoice, Receipt

__all__ = ["Invoice", "Receipt"]
