"""Dataset audit: score a labelled spec dataset and report where labels and scores disagree."""
