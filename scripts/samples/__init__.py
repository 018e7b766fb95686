"""Writers of trajscope's sample trajectories, one module per agent log format.

Every observation in the samples comes from running the action for real in a scratch copy of
sample-trajectories/repo (see workspace.py); only the model's words are scripted.
"""
