from labserver import chromium  # noqa: F401  the fixture every browser test starts with


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives a real chromium through JupyterLab (run alone: pytest tests/browser)")
