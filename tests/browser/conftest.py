def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives a real chromium through JupyterLab (run alone: pytest tests/browser)")
