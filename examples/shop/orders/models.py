"""Order, payment and webhook-bookkeeping models for the shop."""
import uuid

from django.db import models


class Product(models.Model):
    sku = models.CharField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    price = models.DecimalField(max_digits=10, decimal_places=2)
    stock = models.IntegerField(default=0)

    def __str__(self):
        return self.sku


class Order(models.Model):
    STATUS_CHOICES = [
        ("cart", "Cart"),
        ("pending", "Pending payment"),
        ("processing", "Processing payment"),
        ("paid", "Paid"),
        ("shipped", "Shipped"),
        ("refunded", "Refunded"),
        ("abandoned", "Abandoned"),
        ("cancelled", "Cancelled"),
    ]

    status = models.CharField(max_length=20, choices=STATUS_CHOICES, default="cart")
    total = models.DecimalField(max_digits=10, decimal_places=2, default=0)
    currency = models.CharField(max_length=3, default="EUR")
    customer_email = models.EmailField()
    # Generated exactly once, when the row is inserted (checkout), and never
    # changed afterwards: every charge attempt for this order reuses it.
    idempotency_key = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    is_preorder = models.BooleanField(default=False)
    stock_reserved = models.BooleanField(default=False)
    card_token = models.CharField(max_length=128, blank=True)
    stripe_customer_id = models.CharField(max_length=64, blank=True)
    stripe_payment_method_id = models.CharField(max_length=64, blank=True)
    tracking_number = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["status", "updated_at"])]

    def __str__(self):
        return f"Order #{self.pk} ({self.status})"

    @property
    def total_cents(self):
        return int(self.total * 100)


class OrderLine(models.Model):
    order = models.ForeignKey(Order, related_name="lines", on_delete=models.CASCADE)
    product = models.ForeignKey(Product, on_delete=models.PROTECT)
    quantity = models.PositiveIntegerField()
    unit_price = models.DecimalField(max_digits=10, decimal_places=2)


class Payment(models.Model):
    STATUS_CHOICES = [
        ("pending", "Pending"),
        ("succeeded", "Succeeded"),
        ("failed", "Failed"),
        ("refunded", "Refunded"),
    ]

    order = models.ForeignKey(Order, related_name="payments", on_delete=models.PROTECT)
    provider = models.CharField(max_length=20)  # "stripe" or "gateway"
    kind = models.CharField(max_length=20, default="order")  # "order", "surcharge"
    amount = models.DecimalField(max_digits=10, decimal_places=2)
    currency = models.CharField(max_length=3, default="EUR")
    status = models.CharField(max_length=20, choices=STATUS_CHOICES, default="pending")
    # Stripe PaymentIntent id or the legacy gateway's charge id.
    external_id = models.CharField(max_length=64, blank=True, db_index=True)
    refund_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)


class Refund(models.Model):
    STATUS_CHOICES = [
        ("pending", "Pending"),
        ("succeeded", "Succeeded"),
        ("failed", "Failed"),
    ]

    # One refund per payment: the unique constraint makes get_or_create a claim.
    payment = models.OneToOneField(Payment, related_name="refund", on_delete=models.PROTECT)
    amount = models.DecimalField(max_digits=10, decimal_places=2)
    status = models.CharField(max_length=20, choices=STATUS_CHOICES, default="pending")
    stripe_refund_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)


class ProcessedWebhook(models.Model):
    """Stripe events already applied; the unique event_id deduplicates them."""

    event_id = models.CharField(max_length=255, unique=True)
    event_type = models.CharField(max_length=100)
    processed_at = models.DateTimeField(auto_now_add=True)


class DailySalesReport(models.Model):
    day = models.DateField(unique=True)
    order_count = models.IntegerField(default=0)
    revenue = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    generated_at = models.DateTimeField(auto_now=True)
