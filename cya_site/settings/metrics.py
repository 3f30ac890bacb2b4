"""Metrics (cya_site.metrics): who may read /metrics."""

from cya_site.env import env_networks, env_str

# --- Metrics (cya_site.metrics): who may read /metrics ----------------------------------
# A scraper bearing this token (Authorization: Bearer <token>), or any client from these
# networks. Neither set (the default): /metrics answers 403 to everyone.
METRICS_TOKEN = env_str("METRICS_TOKEN")
METRICS_ALLOWED_NETWORKS = env_networks("METRICS_ALLOWED_NETWORKS", [])
