import boto3.session


def aws_session_factory(context, request):
    return boto3.session.Session(region_name=request.registry.settings["aws.region"])


def includeme(config):
    config.register_service_factory(aws_session_factory, name="aws.session")
