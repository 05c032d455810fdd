"""What a learner has set up, as plain immutable data, and the one declaration of every setting.

Qt-free: the window edits this state, sessions store it, `--set` changes it.
"""
