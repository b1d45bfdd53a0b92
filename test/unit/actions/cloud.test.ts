import * as family from '../../../lib/core/actions/cloud'
import { familyTable } from './table'

familyTable(family, {
  valid: [
    ['aws s3 cp site/ s3://bucket/ --recursive', 'remote_copy'],
    ['aws ec2 terminate-instances --instance-ids i-1', 'infra_destroy'],
    ['aws --profile prod s3 rm s3://bucket --recursive', 'infra_destroy'],
    ['aws --region eu-west-1 s3 cp site/ s3://bucket/', 'remote_copy'],
    ['aws s3 rb s3://bucket --force', 'infra_destroy'],
    ['aws ses send-email --from a@b.c', 'email_send'],
    ['aws lambda update-function-code --function-name f', 'deploy'],
    ['gcloud compute instances delete vm-1', 'infra_destroy'],
    ['gcloud run deploy api --source .', 'deploy'],
    ['az group delete -n rg', 'infra_destroy'],
    ['doctl compute droplet delete 123', 'infra_destroy'],
    ['gsutil cp dist/app.js gs://bucket/', 'remote_copy'],
    ['gsutil rm gs://bucket/x', 'infra_destroy'],
    // what cannot be undone names what goes (issue 19)
    ['aws s3 rm s3://prod-assets/ --recursive', 'infra_destroy', /^every object under s3:\/\/prod-assets\/$/],
    ['aws s3 rm s3://prod-assets/logs/app.log', 'infra_destroy', /^object s3:\/\/prod-assets\/logs\/app\.log$/],
    ['aws s3 rb s3://old-bucket --force', 'infra_destroy', /bucket s3:\/\/old-bucket and every object in it/],
    ['aws s3 sync build/ s3://site --delete', 'infra_destroy', /every object under s3:\/\/site that build\/ does not have/],
    ['aws ec2 terminate-instances --instance-ids i-0abc', 'infra_destroy', /terminate-instances i-0abc \(aws ec2\)/],
    ['aws rds delete-db-instance --db-instance-identifier prod-db --skip-final-snapshot', 'infra_destroy', /prod-db/],
    ['aws dynamodb delete-table --table-name orders', 'infra_destroy', /delete-table orders/],
    ['gcloud projects delete my-proj --quiet', 'infra_destroy', /^Google Cloud project my-proj and every resource in it$/],
    ['gcloud compute instances delete vm-1 vm-2 --zone us-east1-b', 'infra_destroy', /^Compute Engine instance vm-1, vm-2$/],
    ['gcloud sql instances delete prod-sql', 'infra_destroy', /Cloud SQL instance prod-sql/],
    ['gcloud storage rm -r gs://bucket/data', 'infra_destroy', /every object under gs:\/\/bucket\/data/],
    ['az group delete -n rg-prod --yes', 'infra_destroy', /^Azure resource group rg-prod and every resource in it$/],
    ['az vm delete -g rg -n web1 --yes', 'infra_destroy', /Azure vm web1 in resource group rg/],
    ['doctl databases delete 9cc1 --force', 'infra_destroy', /DigitalOcean databases 9cc1/],
    ['gsutil rm -r gs://bucket/data', 'infra_destroy', /every object under gs:\/\/bucket\/data/],
    ['gsutil rb gs://old', 'infra_destroy', /bucket gs:\/\/old/],
    ['gsutil rsync -d -r dist gs://site', 'infra_destroy', /every object under gs:\/\/site that dist does not have/],
  ],
  invalid: ['aws s3 rm s3://b/x --dryrun', 'aws s3 sync build/ s3://site --dryrun --delete', 'aws rds describe-db-instances', 'gcloud projects list', 'gcloud projects describe my-proj', 'gcloud compute instances list', 'gcloud storage ls gs://bucket', 'az group list', 'az group show -n rg-prod', 'az vm list -g rg', 'doctl databases list', 'gsutil ls -r gs://site', 'aws s3 ls', 'aws --profile prod s3 ls', 'aws ec2 terminate-instances --instance-ids i-1 --dry-run', 'aws s3 cp s3://bucket/x .', 'aws ec2 describe-instances', 'gcloud config list', 'az account show', 'doctl compute droplet list', 'gsutil ls gs://bucket'],
})
