def bigquery_factory(context, request):
    from google.cloud import bigquery

    return bigquery.Client.from_service_account_info(request.registry.settings["gcloud.credentials"])


def includeme(config):
    config.register_service_factory(bigquery_factory, name="gcloud.bigquery")
