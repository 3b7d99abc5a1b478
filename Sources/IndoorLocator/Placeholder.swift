import LabCore
