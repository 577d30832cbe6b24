def crawl(source_id):
    return source_id
