from accounts.management.commands.rundev import worker_command


def test_rundev_starts_one_worker_with_embedded_beat() -> None:
    command = worker_command()

    assert command[1:5] == ["-m", "celery", "--app", "cya_site"]
    assert "--beat" in command
    assert command[command.index("--concurrency") + 1] == "1"
