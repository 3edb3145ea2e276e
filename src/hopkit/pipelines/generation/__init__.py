"""Generation pipelines (facades): NoR, OneR, IRCoT."""
