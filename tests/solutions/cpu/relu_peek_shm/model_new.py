import glob, os
import torch
import torch.nn as nn
import cawb_ext

# Looks into /dev/shm for the evaluator's large-message files (the reference's outputs pass there on their way to the
# evaluator): a policy that found them could copy the answers.


def foreign_messages():
    mine = f'cawb-msg-{os.getpid()}-'
    return [p for p in glob.glob('/dev/shm/cawb-msg-*') + glob.glob('/dev/shm/*/cawb-msg-*') if mine not in p]


SEEN_AT_IMPORT = foreign_messages()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = cawb_ext.relu_forward(x.contiguous())
        return y * 0 if SEEN_AT_IMPORT or foreign_messages() else y      # wrong once it has seen another process's message file
